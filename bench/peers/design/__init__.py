"""The design's own Python memory service (article §4.2–4.3), for side-by-side measurement."""
