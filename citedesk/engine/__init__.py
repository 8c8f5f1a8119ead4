"""The audit's engine: its options and state (`engine.state`), its named stages (`engine.stages`:
structure, sources, reference truth, retrieval, judging, findings), and the work they share with
the store and the sources (`engine.sourcing`) and the judge (`engine.judging`). `citedesk.pipeline`
is its front door for audits; above the pipeline only `desk.jobs` (the desk's jobs on the store:
`open_store`, `source_options`) and the options' and state's users (`engine.state`) import it."""
