/**
 * Operator control (docs/operations.md, "Operator control"): the control topic's keys and records
 * ({@link io.skewguard.runtime.control.ControlRecords}), a cluster's controls as they stand
 * ({@link io.skewguard.runtime.control.ClusterControls}), and an app's side of the decision log
 * ({@link io.skewguard.runtime.control.DecisionLog}). Shared by the balancer, the migrator,
 * the {@code ctl} command and the dashboard.
 */
package io.skewguard.runtime.control;
