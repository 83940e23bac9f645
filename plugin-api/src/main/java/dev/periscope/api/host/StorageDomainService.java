package dev.periscope.api.host;

import java.util.List;

/**
 * Opens named storage domains ({@code browser_runtime}) that the host keeps in the profile as
 * SQLite databases. The host owns the JDBC driver: plugins use {@code java.sql} interfaces only.
 */
public interface StorageDomainService {
  /**
   * Opens a domain and brings its schema to the newest migration's version, applying each newer
   * migration once, in order, in its own transaction.
   */
  StorageDomain open(String name, List<Migration> migrations);
}
