"""The seed's scenarios written with ``terraform_data``, so the real Terraform plans them offline.

Each scenario: the files of a root configuration (with its deployments, the variable files), the
address to specialize, and what each deployment must activate (the specialization's module
name, or None when the deployment's values do not decide it).
"""

from __future__ import annotations

from dataclasses import dataclass

TOML = '[fields."terraform_data.input"]\nseverity = "warning"\n'


@dataclass(frozen=True)
class Scenario:
    files: dict[str, str]
    address: str
    expected: dict[str, str | None]  # deployment file -> active specialization (None: undecided)
    root: str = ""  # the root module's directory among the files (DIR of tfphi specialize)


RESOLVED = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "postgres_version" {
  type    = string
  default = "15.4"
}

variable "name" {
  type = string
}

resource "terraform_data" "app" {
  input = var.postgres_version
}

output "version" {
  value = terraform_data.app.output
}
''',
        "terraform.tfvars": 'name = "shop"\n',
        "env/prod.tfvars": 'name = "shop-prod"\n',
    },
    "terraform_data.app.input",
    {"terraform.tfvars": "app_v15_4", "env/prod.tfvars": "app_v15_4"},
)

CONDITIONAL = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "customer_env" {
  type = string
}

module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
}

output "version" {
  value = module.database.version
}
''',
        "modules/postgres/main.tf": '''variable "engine_version" {
  type = string
}

resource "terraform_data" "db" {
  input = var.engine_version
}

output "version" {
  value = terraform_data.db.output
}
''',
        "terraform.tfvars": 'customer_env = "dev"\n',
        "env/prod.tfvars": 'customer_env = "prod"\n',
        "env/empty.tfvars": "# sets nothing: terraform.tfvars's customer_env applies underneath\n",
    },
    "module.database.terraform_data.db.input",
    {"terraform.tfvars": "db_v14_9", "env/prod.tfvars": "db_v15_4", "env/empty.tfvars": "db_v14_9"},
)

NESTED = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "env" {
  type = string
}

variable "region" {
  type = string
}

locals {
  instance_class = var.env == "prod" ? "m5.xlarge" : (var.region == "us-east-1" ? "m5.xlarge" : "t3.small")
}

resource "terraform_data" "app" {
  input = local.instance_class
}
''',
        "env/us.tfvars": 'env    = "dev"\nregion = "us-east-1"\n',
        "env/eu.tfvars": 'env    = "dev"\nregion = "eu-west-1"\n',
        "env/prod.tfvars": 'env    = "prod"\nregion = "eu-west-1"\n',
        "env/region_only.tfvars": 'region = "eu-west-1"\n',  # env decides, and it is not set
    },
    "terraform_data.app.input",
    {"env/prod.tfvars": "app_m5_xlarge", "env/us.tfvars": "app_m5_xlarge", "env/eu.tfvars": "app_t3_small",
     "env/region_only.tfvars": None},
)

UNIVERSE = Scenario(
    {
        ".tfphi.toml": TOML,
        "variables.tf": '''variable "instance_size" {
  type = string

  validation {
    condition     = contains(["small", "medium", "large"], var.instance_size)
    error_message = "instance_size must be small, medium or large."
  }
}
''',
        "main.tf": '''module "db" {
  source        = "./modules/db"
  instance_size = var.instance_size
}

output "size" {
  value = module.db.size
}
''',
        "modules/db/main.tf": '''variable "instance_size" {
  type = string
}

resource "terraform_data" "db" {
  input = var.instance_size
}

output "size" {
  value = terraform_data.db.output
}
''',
        "small.tfvars": 'instance_size = "small"\n',
        "medium.tfvars": 'instance_size = "medium"\n',
        "large.tfvars": 'instance_size = "large"\n',
    },
    "module.db.terraform_data.db.input",
    {"small.tfvars": "db_small", "medium.tfvars": "db_medium", "large.tfvars": "db_large"},
)

# A universe configured for the field, which the configuration does not enforce (no validation
# block): the specializer guards var.size (SPEC 7, issue 22 defect 11).
CONFIGURED_UNIVERSE = Scenario(
    {
        ".tfphi.toml": '[fields."terraform_data.input"]\nuniverse = ["db.t4g.medium", "db.r6g.large"]\n',
        "main.tf": '''variable "size" {
  type = string
}

module "db" {
  source = "./modules/db"
  size   = var.size
}
''',
        "modules/db/main.tf": '''variable "size" {
  type = string
}

resource "terraform_data" "db" {
  input = var.size
}
''',
        "small.tfvars": 'size = "db.t4g.medium"\n',
        "large.tfvars": 'size = "db.r6g.large"\n',
    },
    "module.db.terraform_data.db.input",
    {"small.tfvars": "db_db_t4g_medium", "large.tfvars": "db_db_r6g_large"},
)

# References to the specialized resource ([*] spliced, one(concat(...))), depends_on on both sides.
REFERENCES = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "env" {
  type = string
}

locals {
  versions = { prod = "15.4", dev = "14.9" }
  team     = "data"
}

resource "terraform_data" "base" {
  input = local.team
}

resource "terraform_data" "app" {
  input            = var.env == "prod" ? local.versions["prod"] : local.versions["dev"]
  triggers_replace = [terraform_data.base.output]

  depends_on = [terraform_data.base]
}

resource "terraform_data" "consumer" {
  input = "${terraform_data.app.output}-${local.team}"

  depends_on = [terraform_data.app, terraform_data.base]
}

locals {
  version = terraform_data.app.output
  whole   = terraform_data.app
}

output "version" {
  value = local.version
}

output "id" {
  value = local.whole.id
}
''',
        "env/prod.tfvars": 'env = "prod"\n',
        "env/dev.tfvars": 'env = "dev"\n',
    },
    "terraform_data.app.input",
    {"env/prod.tfvars": "app_v15_4", "env/dev.tfvars": "app_v14_9"},
)

# A resource with its own for_each: wrapped in a generated module, the for_each stays inside.
WRAPPED_FOR_EACH = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "cache_version" {
  type = string

  validation {
    condition     = var.cache_version == "7.0" || var.cache_version == "7.1"
    error_message = "cache_version must be 7.0 or 7.1."
  }
}

variable "groups" {
  type    = map(string)
  default = { sessions = "s", jobs = "j" }
}

resource "terraform_data" "cache" {
  for_each         = var.groups
  input            = var.cache_version
  triggers_replace = [each.key, each.value]
}

output "ids" {
  value = { for k, g in terraform_data.cache : k => g.id }
}

output "jobs" {
  value = terraform_data.cache["jobs"].output
}
''',
        "terraform.tfvars": 'cache_version = "7.0"\n',
        "env/next.tfvars": 'cache_version = "7.1"\n',
    },
    "terraform_data.cache.input",
    {"terraform.tfvars": "cache_v7_0", "env/next.tfvars": "cache_v7_1"},
)

# A resource with its own count, and a reference that needs its [0] after the splice.
WRAPPED_COUNT = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "tier" {
  type = bool
}

variable "replicas" {
  type    = number
  default = 2
}

resource "terraform_data" "node" {
  count = var.replicas
  input = var.tier ? "premium" : "standard"
}

output "first" {
  value = terraform_data.node[0].output
}
''',
        "env/premium.tfvars": "tier = true\n",
        "env/standard.tfvars": "tier     = false\nreplicas = 3\n",
    },
    "terraform_data.node.input",
    {"env/premium.tfvars": "node_premium", "env/standard.tfvars": "node_standard"},
)

# The root calls a module outside its own directory (envs/prod -> ../../modules/db): OUTDIR
# mirrors their common ancestor, and the root sits at envs/prod inside it.
OUTSIDE_ROOT = Scenario(
    {
        "envs/prod/.tfphi.toml": TOML,
        "envs/prod/main.tf": '''variable "ha" {
  type = bool
}

module "db" {
  source = "../../modules/db"
  size   = var.ha ? "large" : "small"
}
''',
        "envs/prod/terraform.tfvars": "ha = true\n",
        "envs/prod/single.tfvars": "ha = false\n",
        "modules/db/main.tf": '''variable "size" {
  type = string
}

resource "terraform_data" "db" {
  input = var.size
}
''',
    },
    "module.db.terraform_data.db.input",
    {"terraform.tfvars": "db_large", "single.tfvars": "db_small"},
    root="envs/prod",
)

# The resource's module is called with for_each: a moved block without the instance keys is
# ignored by Terraform (it planned 2 to add, 2 to destroy), so each instance gets its own.
ITERATED_MODULE = Scenario(
    {
        ".tfphi.toml": TOML,
        "main.tf": '''variable "ha" {
  type = bool
}

variable "regions" {
  type    = set(string)
  default = ["eu-west-1", "us-east-1"]
}

module "app" {
  for_each = var.regions
  source   = "./modules/app"
  region   = each.key
  size     = var.ha ? "large" : "small"
}

output "ids" {
  value = { for region, app in module.app : region => app.id }
}
''',
        "modules/app/main.tf": '''variable "region" {
  type = string
}

variable "size" {
  type = string
}

resource "terraform_data" "db" {
  input            = var.size
  triggers_replace = [var.region]
}

output "id" {
  value = terraform_data.db.id
}
''',
        "terraform.tfvars": "ha = true\n",
        "env/eu.tfvars": 'ha      = false\nregions = ["eu-west-1"]\n',
    },
    "module.app.terraform_data.db.input",
    {"terraform.tfvars": "db_large", "env/eu.tfvars": "db_small"},
)

SCENARIOS = {
    "resolved": RESOLVED,
    "conditional": CONDITIONAL,
    "nested_coalesced": NESTED,
    "universe": UNIVERSE,
    "configured_universe": CONFIGURED_UNIVERSE,
    "references": REFERENCES,
    "wrapped_for_each": WRAPPED_FOR_EACH,
    "wrapped_count": WRAPPED_COUNT,
    "outside_root": OUTSIDE_ROOT,
    "iterated_module": ITERATED_MODULE,
}
