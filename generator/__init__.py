"""torchdeck: machine-verified study material about torch.backends (Anki deck, workshop slides, quizzes)."""
