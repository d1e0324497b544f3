package io.skewguard.agent.store;

/** The in-memory store keeps the {@link NodeStoreContract}. */
class InMemoryNodeStoreTest extends NodeStoreContract {

    @Override
    protected LedgerNodeStore open(String id) {
        return new InMemoryNodeStore(id, SLOTS, clock::get, nodes::get);
    }
}
