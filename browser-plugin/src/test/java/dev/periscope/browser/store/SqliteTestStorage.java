package dev.periscope.browser.store;

import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A storage-domain service on real SQLite files for the plugin's tests: one connection per domain,
 * migrations applied by {@code user_version}. Unlike a host, it does not refuse a newer schema, so
 * the plugin's own refusal can be tested.
 */
public final class SqliteTestStorage implements StorageDomainService {
  private final Path directory;

  public SqliteTestStorage(Path directory) {
    this.directory = directory;
  }

  public Path file(String domain) {
    return directory.resolve(domain + ".sqlite");
  }

  /** Runs SQL on a domain's file outside any plugin, as an operator (or an attacker) would. */
  public void sql(String domain, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file(domain));
        Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  @Override
  public StorageDomain open(String name, List<Migration> migrations) {
    try {
      Connection c = DriverManager.getConnection("jdbc:sqlite:" + file(name));
      int version;
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("PRAGMA user_version")) {
        version = r.getInt(1);
      }
      for (Migration m : migrations) {
        if (m.version() > version) {
          try (Statement s = c.createStatement()) {
            for (String statement : m.sql().split(";")) {
              s.execute(statement);
            }
            s.execute("PRAGMA user_version = " + m.version());
          }
          version = m.version();
        }
      }
      int schema = version;
      return new StorageDomain() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public int schemaVersion() {
          return schema;
        }

        @Override
        public synchronized <T> T transaction(Work<T> work) throws SQLException {
          c.setAutoCommit(false);
          try {
            T result = work.run(c);
            c.commit();
            return result;
          } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
          } finally {
            c.setAutoCommit(true);
          }
        }

        @Override
        public void close() {
          try {
            c.close();
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open " + name + ": " + e.getMessage(), e);
    }
  }
}
