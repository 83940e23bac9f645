package dev.periscope.harness.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.Harness;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harness mcp}: serves a profile's enabled tools to one MCP client over standard input and
 * output, for one agent session. Standard output carries protocol messages only; everything else
 * goes to standard error. The connection ends when standard input ends or the process is asked to
 * stop (SIGTERM, as MCP clients do): the agent session is ended (its lease released with a
 * checkpoint), the host is stopped and no browser is left running.
 */
@Command(
    name = "mcp",
    description = "Serve the enabled tools to an MCP client over standard input and output.")
public final class McpCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(McpCommand.class);

  @Option(names = "--profile", required = true)
  String profile;

  @Option(names = "--project", required = true)
  Path project;

  @Option(
      names = "--session",
      description =
          "the agent session id: name one to continue its browser session in a"
              + " later connection (default: a new one, printed to standard error)")
  String session;

  private Host host;
  private LineTransport transport;
  private McpSyncServer server;
  private ToolServer tools;
  private String agentSession;
  private boolean stopped;

  @Override
  public Integer call() {
    // The protocol owns file descriptor 1; anything that prints to System.out from now on lands on
    // standard error.
    // (The JVM's own output is sent to standard error by ./harness: -XX:+DisplayVMOutputToStderr,
    // -Xlog.)
    OutputStream protocol = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    System.setOut(System.err);
    if (!java.lang.management.ManagementFactory.getRuntimeMXBean()
        .getInputArguments()
        .contains("-XX:+DisplayVMOutputToStderr")) {
      System.err.println(
          "harness mcp: warning: this JVM may print its own messages (a thread dump on SIGQUIT) to"
              + " standard output, into the protocol; ./harness starts it with -XX:+DisplayVMOutputToStderr");
    }
    agentSession = session != null ? session : "mcp-" + UUID.randomUUID();
    host =
        Host.start(
            HarnessHome.fromEnvironment(),
            profile,
            project,
            Host.Options.defaults().askingOnTheTerminal());
    Thread hook = new Thread(this::stop, "mcp-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
      transport = new LineTransport(json, new FileInputStream(FileDescriptor.in), protocol);
      tools = new ToolServer(host, agentSession, json);
      server = tools.start(transport, Harness.VERSION);
      System.err.println(
          "harness mcp: serving "
              + host.tools().size()
              + " tools of profile "
              + profile
              + " as agent session "
              + agentSession
              + (session == null ? " (continue it with --session " + agentSession + ")" : ""));
      transport.ended().join();
    } finally {
      stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or has run stop(), which is done
      }
    }
    return 0;
  }

  /**
   * Ends the session and stops the host, once, whether standard input ended or a signal came first:
   * no new call is taken, the running ones are cancelled (a pending approval prompt gives up), then
   * the agent session ends with its checkpoint and the host stops.
   */
  private synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    if (transport != null) {
      transport.close();
    }
    if (tools != null) {
      tools.close();
    }
    if (server != null) {
      try {
        server.close();
      } catch (RuntimeException e) {
        LOG.debug("closing the MCP session", e);
      }
    }
    try {
      host.endSession(agentSession);
    } finally {
      host.close();
    }
    LOG.info("agent session {} ended; host stopped", agentSession);
  }
}
