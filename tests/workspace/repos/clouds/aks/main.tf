# An AKS cluster with a user node pool, a PostgreSQL and a MySQL flexible server and a
# Redis cache, as in Azure/terraform-azurerm-aks's and the azurerm provider's examples.
variable "kubernetes_version" {
  type = string
}

variable "sku_tier" {
  type    = string
  default = "Standard"
}

variable "mysql_version" {
  type = string
}

resource "azurerm_kubernetes_cluster" "aks" {
  name                = "aks"
  location            = "westeurope"
  resource_group_name = "rg"
  dns_prefix          = "aks"
  kubernetes_version  = var.kubernetes_version
  sku_tier            = var.sku_tier

  default_node_pool {
    name       = "system"
    vm_size    = "Standard_D2s_v5"
    node_count = 1
  }

  identity {
    type = "SystemAssigned"
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "user" {
  name                  = "user"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.aks.id
  vm_size               = "Standard_E4s_v5"
}

resource "azurerm_postgresql_flexible_server" "db" {
  name                = "db"
  location            = "westeurope"
  resource_group_name = "rg"
  version             = "16"
  sku_name            = "GP_Standard_D2s_v3"
}

resource "azurerm_mysql_flexible_server" "legacy" {
  name                = "legacy"
  location            = "westeurope"
  resource_group_name = "rg"
  version             = var.mysql_version
  sku_name            = "B_Standard_B1ms"
}

resource "azurerm_redis_cache" "cache" {
  name                = "cache"
  location            = "westeurope"
  resource_group_name = "rg"
  capacity            = 1
  family              = "C"
  sku_name            = "Enterprise"
}
