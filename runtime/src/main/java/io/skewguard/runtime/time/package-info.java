/** Bounds on the event times the apps read: {@link io.skewguard.runtime.time.FutureSkew}. */
package io.skewguard.runtime.time;
