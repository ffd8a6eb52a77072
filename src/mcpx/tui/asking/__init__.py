"""When the server asks the user: elicitation (form and URL), sampling, roots, and the queue they wait in."""
