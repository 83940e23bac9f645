package dev.periscope.api.host;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * An open storage domain. Work runs inside {@link #transaction}: committed when the work returns,
 * rolled back when it throws. Closing the domain releases its connections.
 */
public interface StorageDomain extends AutoCloseable {
  String name();

  int schemaVersion();

  <T> T transaction(Work<T> work) throws SQLException;

  @Override
  void close();

  /** Work against one connection inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }
}
