/** Bounds on the state an app keeps for ids it reads from its input: how many, how long, how long an id. */
package io.skewguard.runtime.state;
