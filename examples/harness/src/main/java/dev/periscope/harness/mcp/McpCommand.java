package dev.periscope.harness.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.periscope.harness.Harness;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code harness mcp}: serves a profile's enabled tools to one MCP client over standard input and
 * output, for one agent session; with {@code --http}, to many clients over Streamable HTTP, a
 * session each ({@link McpHttpServer}). On standard input and output, standard output carries
 * protocol messages only; everything else goes to standard error. The connection ends when standard
 * input ends or the process is asked to stop (SIGTERM, as MCP clients do; it then exits 0, not
 * 143): the agent session is ended (its lease released with a checkpoint), the host is stopped and
 * no browser is left running. The HTTP server serves until SIGTERM (or Ctrl-C), which ends every
 * session so.
 */
@Command(
    name = "mcp",
    description =
        "Serve the enabled tools to an MCP client over standard input and output, or with --http"
            + " to many over Streamable HTTP.")
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

  @Option(
      names = "--http",
      paramLabel = "[HOST:]PORT",
      description =
          "serve over Streamable HTTP at http://HOST:PORT/mcp instead (HOST: 127.0.0.1 unless"
              + " given; PORT 0: any free port)")
  String http;

  @Option(
      names = "--allow-non-loopback",
      description = "with --http, let HOST be an address other machines can reach")
  boolean nonLoopback;

  @Option(
      names = "--token-file",
      description =
          "with --http, the file holding the bearer token (mode 0600; default: one generated in"
              + " the profile on first start)")
  Path tokenFile;

  @Option(
      names = "--max-sessions",
      defaultValue = "8",
      description = "with --http, the most MCP sessions at once (default: ${DEFAULT-VALUE})")
  int maxSessions;

  @Option(
      names = "--idle-timeout",
      defaultValue = "30m",
      converter = Durations.class,
      description =
          "with --http, end a session idle this long, with its checkpoint (default:"
              + " ${DEFAULT-VALUE})")
  Duration idleTimeout;

  @Option(
      names = "--allow-host",
      paramLabel = "NAME",
      description = "with --http, another Host name clients use (repeatable)")
  List<String> allowHosts = new ArrayList<>();

  @Option(
      names = "--keep-alive",
      hidden = true,
      defaultValue = "30s",
      converter = Durations.class,
      description = "with --http, how often to ping the clients that listen")
  Duration keepAlive;

  @Option(
      names = "--read-timeout",
      hidden = true,
      defaultValue = "30s",
      converter = Durations.class,
      description =
          "with --http, drop a request whose body takes longer, or a connection stalled so long")
  Duration readTimeout;

  @Spec CommandSpec spec;

  /** The options that only serving over HTTP reads. */
  private static final List<String> HTTP_ONLY =
      List.of(
          "--allow-non-loopback",
          "--token-file",
          "--max-sessions",
          "--idle-timeout",
          "--allow-host",
          "--keep-alive",
          "--read-timeout");

  private Host host;
  private LineTransport transport;
  private McpSyncServer server;
  private ToolServer tools;
  private String agentSession;
  private boolean stopped;

  @Override
  public Integer call() {
    if (http != null) {
      return serveHttp();
    }
    for (String option : HTTP_ONLY) {
      if (spec != null && spec.commandLine().getParseResult().hasMatchedOption(option)) {
        throw new HarnessException(
            option + " is for --http; on standard input and output there is one client");
      }
    }
    if (session != null && !HttpSessions.NAME.matcher(session).matches()) {
      throw new HarnessException(
          "--session \""
              + session
              + "\" is not an agent session name: 1 to 64 letters, digits, '.', '_' or '-',"
              + " beginning with a letter or digit");
    }
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
    StopSignal.exitCleanly();
    try {
      McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
      tools = new ToolServer(host, json, ToolServer.AgentSessions.fixed(agentSession));
      transport =
          new LineTransport(json, new FileInputStream(FileDescriptor.in), protocol, tools.names());
      server = tools.start(McpServer.sync(transport), Harness.VERSION);
      transport.onCancelled(id -> tools.cancel(transport.sessionId(), id));
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
   * Serves over HTTP until the process is asked to stop; then every session ends with its
   * checkpoint, and the host stops.
   */
  private int serveHttp() {
    if (session != null) {
      throw new HarnessException(
          "--session is for standard input and output; over HTTP each client names its agent"
              + " session with the "
              + HttpGate.SESSION_HEADER
              + " header");
    }
    if (maxSessions < 1 || maxSessions > 256) {
      throw new HarnessException("--max-sessions must be from 1 to 256");
    }
    InetSocketAddress address = address(http);
    if (!McpHttpServer.loopback(address.getHostString()) && !nonLoopback) {
      throw new HarnessException(
          address.getHostString()
              + " is not a loopback address: other machines could reach the server there; say so"
              + " with --allow-non-loopback (and put TLS in front: the token travels in clear)");
    }
    HarnessHome home = HarnessHome.fromEnvironment();
    BearerToken token =
        tokenFile != null
            ? BearerToken.load(tokenFile, false)
            : BearerToken.load(home.profile(profile).dir().resolve(BearerToken.FILE), true);
    McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
    host = Host.start(home, profile, project, Host.Options.defaults());
    McpHttpServer served;
    try {
      served =
          McpHttpServer.start(
              host,
              json,
              token,
              new McpHttpServer.Settings(
                  address, maxSessions, idleTimeout, allowHosts, readTimeout, keepAlive),
              Harness.VERSION);
    } catch (RuntimeException e) {
      host.close();
      throw e;
    }
    java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
    Runnable stop =
        () -> {
          try {
            served.close();
          } finally {
            try {
              host.close();
            } finally {
              LOG.info("HTTP server stopped; every session ended with its checkpoint");
              stopped.countDown();
            }
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "mcp-http-stop"));
    StopSignal.exitCleanly();
    System.err.println(
        "harness mcp: serving "
            + host.tools().size()
            + " tools of profile "
            + profile
            + " at "
            + served.endpoint()
            + " (at most "
            + maxSessions
            + " sessions, each ended after "
            + Durations.format(idleTimeout)
            + " idle); every request needs Authorization: Bearer TOKEN, the token is in "
            + token.file());
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** {@code [HOST:]PORT} as an address; HOST is 127.0.0.1 when not given. */
  static InetSocketAddress address(String text) {
    int colon = text.lastIndexOf(':');
    String hostPart = colon < 0 ? "127.0.0.1" : text.substring(0, colon);
    if (hostPart.startsWith("[") && hostPart.endsWith("]")) {
      hostPart = hostPart.substring(1, hostPart.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535 || hostPart.isBlank()) {
      throw new HarnessException(
          "--http takes [HOST:]PORT, as 8931 or 127.0.0.1:8931 (port 0: any free one), not '"
              + text
              + "'");
    }
    return InetSocketAddress.createUnresolved(hostPart, port);
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
