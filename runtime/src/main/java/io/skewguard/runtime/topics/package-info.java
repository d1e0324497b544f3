/**
 * SkewGuard's topics as a deployment needs them: {@link io.skewguard.runtime.topics.TopicPlan} says
 * what every topic must look like (partitions, cleanup policy, retention, replication factor),
 * {@link io.skewguard.runtime.topics.TopicProvisioner} creates what is missing and reports what
 * differs, and {@link io.skewguard.runtime.topics.TopicsCommand} is {@code skewguard topics create|check}.
 */
package io.skewguard.runtime.topics;
