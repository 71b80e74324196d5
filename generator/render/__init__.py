"""Renderers: one thin module per output format, all reading the same verified course."""
