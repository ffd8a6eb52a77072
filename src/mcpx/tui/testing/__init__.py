"""The edit–test loop in the inspector: watch the server's files (`inspect --watch`), save a call as a test,
run the collection."""
