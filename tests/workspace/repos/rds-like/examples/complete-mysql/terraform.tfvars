mysql_version = "8.0"
