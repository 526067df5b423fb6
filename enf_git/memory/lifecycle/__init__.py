"""Lifecycle: how memory ages and what a person asks it to keep or drop. Compression
(hot, warm, cold), permanent and temporary pins, remembered facts, forget (and the
Forgettable protocol pins and forget share), and instincts derived from repeated
friction. Imports the record room and the flat base; share/ and context/ build on it."""
