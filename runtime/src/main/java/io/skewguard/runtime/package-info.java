/**
 * What every long-running SkewGuard process shares: the settings model ({@code settings}), the one
 * lifecycle ({@code lifecycle}) and topic provisioning ({@code topics}).
 */
package io.skewguard.runtime;
