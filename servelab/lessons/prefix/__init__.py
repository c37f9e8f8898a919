"""Reading a shared prefix once, the reuse probe and its findings: what chapters 00, 04 and 09
share, owned by none of them."""
