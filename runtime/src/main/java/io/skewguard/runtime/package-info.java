/**
 * What every long-running SkewGuard process shares: the settings model ({@code settings}), the one
 * lifecycle ({@code lifecycle}), topic provisioning ({@code topics}) and the bound on event times
 * ({@code time}).
 */
package io.skewguard.runtime;
