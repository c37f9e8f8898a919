"""The chapters' helpers and the prose each page computes from its numbers.

A module is named after what it holds, not after a chapter number, because several serve more
than one chapter (the notebooks import them by these names, so they stay):

- ``thresholds`` (every chapter): every bar a verdict is measured against, in one table;
- findings records, one per effect, built from the runs apart from the words that state them:
  ``batch_findings`` (00-02, the smoke check; with the lesson's GPU figures),
  ``paging_findings`` (00, 03), ``reuse_findings`` and ``sharing_findings`` (00, 04),
  ``dial_findings`` (05), ``lesson_findings`` (00: chunking and the page's summary);
- ``lesson`` (00): the lesson's source and the page's words;
- ``batching`` (01, 02): the step-time fit, the arithmetic rate, the pages' text;
- ``kv`` (03-05), ``block_table`` (03, 04), ``cache_text`` (03-05): KV-cache arithmetic, the
  block-table figure, the pages' text; ``capacity`` (03): planning how many users fit on a card
  from published model figures, and the same arithmetic checked against the engine's count;
- ``prefix`` (04, 00), ``sharing`` (04): the prefill probe (prompt tokens computed against
  cached, and the first token, request by request), shared blocks;
- ``dials`` (05): the sweep's latencies and the refused start (its workload, ``MixedLengths``,
  lives in ``servelab.bench.workloads``);
- ``chunked_prefill`` (06, 00): the engine's chunking, the budget, the page's text;
- ``serving_metrics`` (07): the metrics read off one run, percentiles, Little's law against the
  engine's count, what the late requests missed;
- ``throughput_latency`` (07): two deployments against one (its workload, ``MixedTraffic``, lives
  in ``servelab.bench.workloads``);
- ``when_not_to``, ``llama_cpp``, ``gguf_f16`` (08): the two engines compared, llama-cpp-python's
  build, the 16-bit GGUF file (the llama.cpp server itself is ``servelab.llama_server``);
- ``routing`` (09): routing policies and the prefix cache over repeated runs, a replica that
  dies, two copies against one server (the replicas and the router are ``servelab.replicas`` and
  ``servelab.router``);
- shared by several pages: ``prediction`` (the reader's prediction beside the measurement) and
  ``cores`` (which CPU cores the engine computes on).
"""
