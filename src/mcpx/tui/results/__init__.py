"""What a call or read returns: content blocks, structured results, images, big texts, saving a blob."""
