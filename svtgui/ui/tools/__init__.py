"""Side tools: answering from a release file, the About dialog, and rendering the window to PNG."""
