// WebFallback module.
