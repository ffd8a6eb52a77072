"""The Skills tab: the server's skills (SEP-2640), listed without reading a file, verified on load."""
