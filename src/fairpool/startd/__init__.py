"""The execute node's side: slots, partitioning, and (later) the policy state machine."""
