terraform {
  source = "git::https://example.com/acme/modules.git//db?ref=v1.2.0"
}

inputs = {
  engine_version = "16.2"
}
