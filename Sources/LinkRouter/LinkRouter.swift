// LinkRouter module.
