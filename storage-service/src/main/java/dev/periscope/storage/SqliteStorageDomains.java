package dev.periscope.storage;

import dev.periscope.api.host.Migration;
import dev.periscope.api.host.StorageDomain;
import dev.periscope.api.host.StorageDomainService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Storage domains as SQLite files in the profile's data directory ({@code data/<domain>.sqlite}).
 * The host owns the JDBC driver; each domain keeps one connection and runs one transaction at a
 * time. Migrations are applied once each, in version order, recorded in SQLite's {@code
 * user_version}.
 */
public final class SqliteStorageDomains implements StorageDomainService, AutoCloseable {
  private final Path directory;
  private final List<Domain> open = new ArrayList<>();

  public SqliteStorageDomains(Path directory) {
    this.directory = directory;
  }

  @Override
  public synchronized StorageDomain open(String name, List<Migration> migrations) {
    if (!name.matches("^[a-z][a-z0-9_]{0,63}$")) {
      throw new IllegalArgumentException("invalid storage domain name: " + name);
    }
    Path file = directory.resolve(name + ".sqlite");
    Connection c = null;
    try {
      Files.createDirectories(directory);
      c = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA busy_timeout=5000");
        try (ResultSet check = s.executeQuery("PRAGMA quick_check")) {
          String verdict = check.next() ? check.getString(1) : "no answer";
          if (!"ok".equals(verdict)) {
            throw new SQLException("the integrity check found: " + verdict);
          }
        }
        s.execute("PRAGMA journal_mode=WAL");
      }
      Domain d = new Domain(name, c);
      d.migrate(migrations);
      open.add(d);
      return d;
    } catch (SQLException e) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException closing) {
          e.addSuppressed(closing);
        }
      }
      throw new IllegalStateException(
          "cannot open storage domain "
              + name
              + " ("
              + file
              + "): "
              + e.getMessage()
              + ". The file was left as it is; move it away to start afresh, or restore it from a backup.",
          e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    for (Domain d : List.copyOf(open)) {
      d.close();
    }
  }

  private final class Domain implements StorageDomain {
    private final String name;
    private final Connection connection;
    private int version;

    Domain(String name, Connection connection) {
      this.name = name;
      this.connection = connection;
    }

    void migrate(List<Migration> migrations) throws SQLException {
      int current;
      try (Statement s = connection.createStatement();
          ResultSet r = s.executeQuery("PRAGMA user_version")) {
        current = r.getInt(1);
      }
      int newest = migrations.stream().mapToInt(Migration::version).max().orElse(0);
      if (current > newest) {
        throw new SQLException(
            "its schema version "
                + current
                + " is newer than the newest this plugin knows ("
                + newest
                + "); it was written by a newer release");
      }
      for (Migration m :
          migrations.stream().sorted(Comparator.comparingInt(Migration::version)).toList()) {
        if (m.version() <= current) {
          continue;
        }
        final int target = m.version();
        transaction(
            c -> {
              try (Statement s = c.createStatement()) {
                for (String statement : m.sql().split(";")) {
                  if (!statement.isBlank()) {
                    s.execute(statement);
                  }
                }
                s.execute("PRAGMA user_version = " + target);
              }
              return null;
            });
        current = target;
      }
      version = current;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public int schemaVersion() {
      return version;
    }

    @Override
    public synchronized <T> T transaction(Work<T> work) throws SQLException {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    }

    @Override
    public void close() {
      synchronized (SqliteStorageDomains.this) {
        open.remove(this);
      }
      try {
        connection.close();
      } catch (SQLException e) {
        throw new IllegalStateException("cannot close storage domain " + name, e);
      }
    }
  }
}
