/**
 * The slot table (docs/design.md §3.2): S fixed hash buckets of keys, each mapped to a candidate set, changed only
 * by epoch-checked {@link io.skewguard.core.slots.SlotUpdate}s.
 */
package io.skewguard.core.slots;
