"""The referee service: HTTP API, chat endpoint, live events and the web console."""
