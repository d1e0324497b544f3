package io.skewguard.balancer;

/** Input the balancer cannot act on; the record goes to the dead-letter topic with this reason. */
final class RejectedInput extends Exception {

    RejectedInput(String reason) {
        super(reason, null, false, false);
    }

    RejectedInput(String reason, Throwable cause) {
        super(reason, cause, false, false);
    }
}
