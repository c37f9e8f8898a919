"""The KV cache in blocks and what a card holds: what chapters 00-06 and 08-10 share, owned by
none of them."""
