# A vendor stack in the shape of the phi-tracing seed's running example.

module "database" {
  source         = "./modules/postgres"
  name           = "${var.app_name}-db"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
  instance_class = local.instance_class
}

module "cache" {
  source         = "./modules/cache"
  engine_version = var.cache_engine_version
  node_type      = var.cache_node_type
  replicas = {
    sessions = "${var.app_name}-sessions"
    jobs     = "${var.app_name}-jobs"
  }
}

locals {
  instance_class = var.customer_env == "prod" ? "db.r6g.large" : "db.t4g.medium"
}

resource "aws_iam_role" "worker" {
  name = "${var.app_name}-worker"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Action = "sts:AssumeRole", Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" } }]
  })
}

resource "aws_lambda_function" "worker" {
  function_name = "${var.app_name}-worker"
  role          = aws_iam_role.worker.arn
  handler       = "main.handler"
  runtime       = lower(var.lambda_runtime)
  filename      = "worker.zip"

  environment {
    variables = {
      DATABASE_ENDPOINT = module.database.endpoint
    }
  }
}
