__version__ = "0.1.0"
# What `svtgui --version` and `svtgui-cli --version` both print (packaging/build.sh checks it).
VERSION_TEXT = f"SVT Studio {__version__} (svtgui)"
