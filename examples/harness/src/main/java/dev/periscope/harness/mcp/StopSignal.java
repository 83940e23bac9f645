package dev.periscope.harness.mcp;

/**
 * How an MCP server stops when asked: MCP clients close a server they started by sending it
 * SIGTERM, and a service manager stops one so. The JVM's own answer runs the shutdown hooks and
 * exits 143, which clients (Spring AI's among them) log as a failure on every normal close. Here
 * SIGTERM runs the same hooks (each session ends with its checkpoint, the browsers stop) and the
 * process exits 0.
 */
final class StopSignal {
  private StopSignal() {}

  /** From now on SIGTERM is a clean stop: the shutdown hooks, then exit status 0. */
  static void exitCleanly() {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> System.exit(0));
    } catch (IllegalArgumentException noSuchSignal) {
      // A platform without SIGTERM stops the process its own way.
    }
  }
}
