"""The audit's engine: its options and state (`engine.state`), its named stages (`engine.stages`:
structure, sources, reference truth, retrieval, judging, findings), and the work they share with
the store and the sources (`engine.sourcing`) and the judge (`engine.judging`). `citedesk.pipeline`
is its front door; nothing above the pipeline imports it."""
