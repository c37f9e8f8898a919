"""The lessons' helpers, findings and words: one package per chapter, named after it, and the
packages and modules the chapters share, which no chapter owns.

A chapter's package (``servelab.chapter.Chapter.package``: ``03-paged-attention`` lives in
``paged_attention``) holds its declaration (``chapter``: sizes and figures), its story
(``story``: every passage its page writes from its numbers, in page order), its result record
(``record``) and whatever else only that chapter measures, finds or words. No chapter's package
imports another's (``tests/unit/test_import_layers.py``): what two chapters share lives below,
so chapter 00 reads the same findings records as the deep dives and two pages cannot disagree
about one run. A module holds records or words, never both (``tests/unit/test_lesson_shape.py``).

Chapters: ``serving_many_users`` (00), ``serving_engine`` (01), ``continuous_batching`` (02, with
the published cards' rows in ``published``), ``paged_attention`` (03), ``prefix_caching`` (04),
``the_dials`` (05), ``chunked_prefill`` (06), ``throughput_vs_latency`` (07), ``when_not_to``
(08), ``past_one_machine`` (09), ``capacity_plan`` (10).

Shared:

- ``thresholds``: the bar several chapters share; a chapter's own bars are in its package's
  ``thresholds`` module;
- ``compare``: one comparison of two arms' spreads and its verdict (``Compared``), where a value
  falls against a window (``Placed``), and how far an effect showed (``Shown``); its words
  where the runs cannot tell, the one wording every chapter's words use, in ``untold_words``;
- ``recorded``: a chapter's findings kept as JSON and read back, for its story snapshot;
- ``story``: a chapter's story, its sections and their rendering;
- ``fold``: a passage's finding first and what backs it folded beneath, one line to open;
- ``prediction``: the reader's prediction beside what the run measured (every page), its
  numbers scored against the page's figures (``guess``);
- ``rate_sweeps``: rate sweeps, their tables and two set-ups side by side (07 and 10);
- ``device_model``: this device's step line and prompt reading, fitted once (chapters 02 and
  04), kept on disk per setup and read by the later chapters (``kept``), a chapter's prediction
  against its runs (``foretold``) and the book's closing table (``words``);
- ``batching``: the step-time fit (``steps``), one stream against a crowd with the lesson's GPU
  figures, the ceiling and the arithmetic rate (``findings``), waves against continuous batching
  (``waves_findings``), a step's parts (``step_cost``), the roofline (``roofline``) and the T4's
  step (``t4_step``), a request's metrics (``request_metrics``), and their words (``words``,
  ``step_words``, ``request_words``);
- ``paging``: KV-cache arithmetic (``kv``), planning users on a card (``capacity``), the cache's
  findings (``findings``);
- ``prefix``: the prefill probe (``probe``) and what reuse saved (``reuse_findings``);
- ``chunking``: the engine's start-up log (``engine_log``), the document and the budget
  (``sizing``), the runs' figures (``measuring``), ``findings`` and ``words``.

The programs themselves (vLLM, llama.cpp, the router) are in ``servelab.engines``; device facts
and core placement in ``servelab.hardware``; every figure's style in ``servelab.plots``.
"""
