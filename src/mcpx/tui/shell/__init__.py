"""The inspector's frame: the app, its connection worker, header, banners, help, palette and Info tab; the
composition root that puts the feature folders together.
"""
