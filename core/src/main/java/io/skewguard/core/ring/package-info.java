/**
 * Placement on the consistent-hash ring (docs/design.md §3): {@link io.skewguard.core.ring.HashRing} (virtual
 * points, lookup), {@link io.skewguard.core.ring.NodeIndex} (node id ↔ index, shared by every per-node
 * array), {@link io.skewguard.core.ring.CandidateSet} (the m nodes a slot may write to) and
 * {@link io.skewguard.core.ring.WeightedPick} (deterministic weighted rendezvous among them). Hot paths
 * work on primitive arrays and allocate nothing per call.
 */
package io.skewguard.core.ring;
