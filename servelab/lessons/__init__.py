"""The lessons' helpers, findings and words, one package per topic.

Each topic holds what its pages measure with beyond ``servelab.bench``, a findings record per
effect (numbers and named verdicts, built from the runs by one constructor) and the words that
state them (``*_text`` functions that only pick phrases from a record). Chapter 00 reads the same
records as the deep dives, so two pages cannot disagree about one run. A module holds records
or words, never both (``tests/unit/test_lesson_shape.py``), and each topic's ``page`` joins its
chapter's words in page order, the text its story snapshot keeps (``tests/snapshots``).

- ``thresholds``: the bar several chapters share; each topic's own bars are in its package's
  ``thresholds`` module, beside its ``chapter.py``;
- ``compare``: one comparison of two arms' spreads and its verdict (``Compared``), where a value
  falls against a window (``Placed``), and how far an effect showed (``Shown``);
- ``recorded``: a chapter's findings kept as JSON and read back, for its story snapshot;
- ``prediction``: the reader's prediction beside what the run measured (every page), its
  numbers scored against the page's figures (``guess``);
- ``device_model``: this device's step line and prompt reading, fitted once (chapters 02 and
  04), kept on disk per setup and read by the later chapters (``kept``), a chapter's prediction
  against its runs (``foretold``) and the book's closing table (``words``);
- ``overview`` (00): the lesson in one notebook, the prefix plot, the page's summary;
- ``batching`` (01, 02): the step-time fit (``steps``), one stream against a crowd with the
  lesson's GPU figures, the ceiling and the arithmetic rate (``findings``), waves against
  continuous batching (``waves_findings``), a step's parts (``step_cost``), the roofline's
  prediction (``roofline``), and their ``words`` and ``step_words``;
- ``paging`` (03): KV-cache arithmetic (``kv``), planning users on a card (``capacity``, in
  words ``capacity_words``), ``findings``, the roomy load against the step line (``pace``) and
  ``words``;
- ``prefix`` (04): the prefill probe (``probe``), shared blocks (``sharing``), the first token
  explained (``first_token``), their findings and ``words``;
- ``dials`` (05): the sweep's latencies and the refused start (``runs``), ``findings`` and
  ``words``, the step model's prediction (``step_model``, ``step_words``), the step line's
  (``line_gain``), one GPU against two
  (``tp_findings``, ``tp_words``);
- ``chunking`` (06): the engine's start-up log (``engine_log``), the document and the budget
  (``sizing``), the runs' figures (``measuring``), ``findings`` and ``words``;
- ``deployments`` (07, and 01's primer): the rate sweeps and set-ups (``throughput_latency``),
  both caps against the step line (``pace``),
  the percentile table (``serving_metrics``),
  their findings (``sweep_findings``, ``mixed_findings``, ``metrics_findings``,
  ``request_metrics``, ``slot_rate``) and words (``sweep_words``, ``mixed_words``,
  ``metrics_words``, ``request_words``, ``slot_words``, the story in ``words``);
- ``single_user`` (08): vLLM against llama.cpp's binding and its own ``llama-server`` (``runs``,
  ``findings``, ``words``), the 16-bit GGUF file, and what is left once both batch
  (``slot_runs``, ``slots``, ``slots_words``);
- ``routing`` (09): routing policies, a replica that dies, copies against one server
  (``measuring``, ``findings``, the copies against the step line in ``pace``, and the words
  ``policy_words``, ``failure_words``, ``copies_words``, ``story``);
- ``capacity`` (10): a plan from the step line, the KV cache and Little's law (``plan``), the
  engine's verdict on it (``findings``) and ``words``.

The programs themselves (vLLM, llama.cpp, the router) are in ``servelab.engines``; device facts
and core placement in ``servelab.hardware``; every figure's style in ``servelab.plots``.
"""
