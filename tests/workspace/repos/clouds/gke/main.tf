# A GKE cluster as in terraform-google-modules/kubernetes-engine's examples: a cluster
# without its default pool, and node pools per workload.
resource "google_container_cluster" "primary" {
  name                     = "${var.name}-gke"
  project                  = var.project_id
  location                 = var.region
  min_master_version       = var.kubernetes_version
  remove_default_node_pool = true
  initial_node_count       = 1

  release_channel {
    channel = var.release_channel
  }
}

resource "google_container_node_pool" "pools" {
  for_each = {
    default = "e2-standard-4"
    highmem = var.highmem_machine_type
  }

  name     = each.key
  project  = var.project_id
  location = var.region
  cluster  = google_container_cluster.primary.name

  node_config {
    machine_type = each.value
  }
}
