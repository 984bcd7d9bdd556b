"""Static files in production: hashed names, compressed, and JS module imports rewritten to them."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    # `import ... from "./api.js"` inside play.<hash>.js then names api.<hash>.js, so a browser
    # never mixes modules of two deploys.
    support_js_module_import_aggregation = True
