"""Widgets every feature may use (the shared base): the Line-API event list, the JSON tree, a yes/no
screen.
"""
