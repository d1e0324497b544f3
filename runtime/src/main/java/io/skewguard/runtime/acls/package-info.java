/** The broker ACLs each SkewGuard role needs ({@link io.skewguard.runtime.acls.AclPlan}) and {@code skewguard acls}, which prints and applies them. */
package io.skewguard.runtime.acls;
