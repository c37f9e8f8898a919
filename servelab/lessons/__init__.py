"""The lessons' helpers, findings and words, one package per topic.

Each topic holds what its pages measure with beyond ``servelab.bench``, a findings record per
effect (numbers and named verdicts, built from the runs by one constructor) and the words that
state them (``*_text`` functions that only pick phrases from a record). Chapter 00 reads the same
records as the deep dives, so two pages cannot disagree about one run.

- ``thresholds``: every bar a verdict is measured against, in one table;
- ``prediction``: the reader's prediction beside what the run measured (every page);
- ``overview`` (00): the lesson in one notebook, the prefix plot, the page's summary;
- ``batching`` (01, 02): the step-time fit and arithmetic rate (``steps``), one stream against a
  crowd with the lesson's GPU figures (``findings``);
- ``paging`` (03): KV-cache arithmetic (``kv``), planning users on a card (``capacity``),
  ``findings`` and ``words``;
- ``prefix`` (04): the prefill probe (``probe``), shared blocks (``sharing``), their findings
  and ``words``;
- ``dials`` (05): the sweep's latencies and the refused start (``runs``), ``findings``, ``words``;
- ``chunking`` (06): the engine's chunking, the budget, the page's text;
- ``deployments`` (07): the serving metrics, two deployments against one, and their ``words``;
- ``single_user`` (08): vLLM against llama.cpp, and the 16-bit GGUF file;
- ``routing`` (09): routing policies, a replica that dies, copies against one server;
- ``capacity`` (10): a plan from the step line, the KV cache and Little's law (``plan``), the
  engine's verdict on it (``findings``) and ``words``.

The programs themselves (vLLM, llama.cpp, the router) are in ``servelab.engines``; device facts
and core placement in ``servelab.hardware``; every figure's style in ``servelab.plots``.
"""
