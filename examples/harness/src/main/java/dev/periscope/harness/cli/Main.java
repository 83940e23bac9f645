package dev.periscope.harness.cli;

import dev.periscope.api.tool.SkillDeclaration;
import dev.periscope.harness.Harness;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.demo.Demo;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.host.ScriptRunner;
import dev.periscope.harness.mcp.McpCommand;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import dev.periscope.harness.profile.SkillSettings;
import dev.periscope.verify.VerifyCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The reference harness's command line: {@code harness
 * plugin|skill|run|attach|mcp|doctor|demo|verify}.
 */
@Command(
    name = "harness",
    mixinStandardHelpOptions = true,
    version = Harness.VERSION,
    description = "The reference host for Periscope plugins.",
    subcommands = {
      Main.PluginCommand.class,
      Main.SkillCommand.class,
      Main.RunCommand.class,
      AttachCommand.class,
      Main.SessionsCommand.class,
      Main.TransitionsCommand.class,
      ReportCommand.class,
      WatchCommand.class,
      Main.CheckpointsCommand.class,
      CredentialsCommand.class,
      McpCommand.class,
      Doctor.class,
      Demo.class,
      VerifyCommand.class
    })
public final class Main implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    // HARNESS_LOG=debug (or trace, info, warn, error) sets how much the harness and its plugins
    // log, to stderr.
    String level = System.getenv("HARNESS_LOG");
    System.getProperties()
        .putIfAbsent(
            "org.slf4j.simpleLogger.defaultLogLevel",
            level != null && level.matches("trace|debug|info|warn|error|off") ? level : "warn");
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.pf4j", "off");
    // The proxy's internals stay at warn whatever HARNESS_LOG says: its debug output would carry
    // request bodies.
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.eclipse.jetty", "warn");
    // The MCP SDK logs whole messages at debug, a browser_fill value among them: it stays at info.
    System.getProperties()
        .putIfAbsent("org.slf4j.simpleLogger.log.io.modelcontextprotocol", "info");
    // When a command runs an agent's session, the browser plugin says at startup what network
    // policy its browsers keep, and the provider what it runs: Chromium, headless or not. The
    // operator's commands (sessions, checkpoints, doctor, ...) stay quiet.
    boolean agentSession =
        args.length > 0 && java.util.Set.of("run", "mcp", "demo").contains(args[0]);
    for (String logger :
        java.util.List.of(
            "dev.periscope.browser.BrowserPlugin",
            "dev.periscope.browser.playwright.PlaywrightProvider",
            // An HTTP server says when each MCP session opens and ends, and why.
            "dev.periscope.harness.mcp.HttpSessions",
            "dev.periscope.harness.mcp.McpCommand")) {
      System.getProperties()
          .putIfAbsent(
              "org.slf4j.simpleLogger.log." + logger,
              level != null && level.matches("trace|debug")
                  ? level
                  : agentSession ? "info" : "warn");
    }
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    // SQLite's native library is unpacked here rather than in the temp directory, where a killed
    // harness would
    // leave a copy behind each time.
    if (System.getProperty("org.sqlite.tmpdir") == null) {
      java.nio.file.Path natives = home().root().resolve("native");
      try {
        java.nio.file.Files.createDirectories(natives);
        System.setProperty("org.sqlite.tmpdir", natives.toString());
      } catch (java.io.IOException e) {
        // then the temp directory it is
      }
    }
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with the harness's error handling: a user's mistake is one message, never a
   * stack trace.
   */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          PrintWriter err = command.getErr();
          if (e instanceof HarnessException) {
            err.println("harness: " + e.getMessage());
          } else {
            err.println("harness: " + e.getClass().getSimpleName() + ": " + Host.rootMessage(e));
            if (System.getenv("HARNESS_DEBUG") != null) {
              e.printStackTrace(err);
            }
          }
          err.flush();
          return 1;
        });
    return cli;
  }

  public static HarnessHome home() {
    return HarnessHome.fromEnvironment();
  }

  @Command(
      name = "plugin",
      description = "Add, list and remove a profile's plugins.",
      mixinStandardHelpOptions = true,
      subcommands = {
        PluginCommand.Add.class,
        PluginCommand.ListPlugins.class,
        PluginCommand.Remove.class
      })
  static final class PluginCommand implements Runnable {
    @Override
    public void run() {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "name a subcommand: add, list or remove");
    }

    @Command(name = "add", description = "Verify a plugin package and install it into a profile.")
    static final class Add implements Callable<Integer> {
      @Option(names = "--profile", required = true)
      String profile;

      @Option(names = "--replace", description = "replace an installed plugin with the same id")
      boolean replace;

      @Parameters(paramLabel = "PACKAGE")
      Path packageFile;

      @Override
      public Integer call() {
        System.out.println(PluginInstaller.add(home(), profile, packageFile, replace));
        return 0;
      }
    }

    @Command(name = "list", description = "List a profile's plugins.")
    static final class ListPlugins implements Callable<Integer> {
      @Option(names = "--profile", required = true)
      String profile;

      @Override
      public Integer call() {
        HarnessHome.Profile p = home().profile(profile);
        var installed = PluginInstaller.installed(p);
        if (installed.isEmpty()) {
          System.out.println("no plugins in profile " + profile);
        }
        installed
            .values()
            .forEach(
                m ->
                    System.out.println(
                        m.id()
                            + " "
                            + m.version()
                            + "  skills: "
                            + String.join(
                                ", ",
                                m.skills().stream()
                                    .map(
                                        s ->
                                            s.name()
                                                + " ("
                                                + (s.audience()
                                                        == SkillDeclaration.Audience.OPERATOR
                                                    ? "operator"
                                                    : SkillSettings.profileSetting(p, s.name())
                                                            .orElse(true)
                                                        ? "enabled"
                                                        : "disabled")
                                                + ")")
                                    .toList())));
        return 0;
      }
    }

    @Command(name = "remove", description = "Remove a plugin from a profile.")
    static final class Remove implements Callable<Integer> {
      @Option(names = "--profile", required = true)
      String profile;

      @Parameters(paramLabel = "ID")
      String id;

      @Override
      public Integer call() {
        PluginInstaller.remove(home(), profile, id);
        System.out.println("removed " + id + " from profile " + profile);
        return 0;
      }
    }
  }

  @Command(
      name = "skill",
      description = "Enable or disable a skill for a profile or a project.",
      mixinStandardHelpOptions = true,
      subcommands = {SkillCommand.Enable.class, SkillCommand.Disable.class})
  static final class SkillCommand implements Runnable {
    @Override
    public void run() {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "name a subcommand: enable or disable");
    }

    static int set(String profile, Path project, String skill, boolean enabled) {
      HarnessHome.Profile p = home().profile(profile);
      SkillDeclaration declared =
          PluginInstaller.installed(p).values().stream()
              .flatMap(m -> m.skills().stream())
              .filter(s -> s.name().equals(skill))
              .findFirst()
              .orElseThrow(
                  () ->
                      new HarnessException(
                          "no plugin in profile "
                              + profile
                              + " declares a skill named '"
                              + skill
                              + "'"));
      if (declared.audience() == SkillDeclaration.Audience.OPERATOR) {
        throw new HarnessException(
            "skill '"
                + skill
                + "' is an operator skill: it is never offered to agents, so there is nothing to"
                + " enable or disable; its tools run from harness sessions, transitions, report,"
                + " checkpoints and doctor");
      }
      Path file =
          project == null ? p.settings() : ProjectConfig.fileOf(ProjectConfig.canonical(project));
      SkillSettings.set(file, skill, enabled);
      System.out.println(
          "skill "
              + skill
              + " "
              + (enabled ? "enabled" : "disabled")
              + " for "
              + (project == null
                  ? "profile " + profile
                  : "project " + ProjectConfig.canonical(project)));
      return 0;
    }

    @Command(name = "enable")
    static final class Enable implements Callable<Integer> {
      @Parameters(paramLabel = "SKILL")
      String skill;

      @Option(names = "--profile", required = true)
      String profile;

      @Option(names = "--project")
      Path project;

      @Override
      public Integer call() {
        return set(profile, project, skill, true);
      }
    }

    @Command(name = "disable")
    static final class Disable implements Callable<Integer> {
      @Parameters(paramLabel = "SKILL")
      String skill;

      @Option(names = "--profile", required = true)
      String profile;

      @Option(names = "--project")
      Path project;

      @Override
      public Integer call() {
        return set(profile, project, skill, false);
      }
    }
  }

  @Command(name = "run", description = "Run one scripted agent session (a YAML file of steps).")
  static final class RunCommand implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Option(names = "--project", required = true)
    Path project;

    @Option(names = "--session", required = true, description = "the agent session id")
    String session;

    @Option(names = "--json", description = "print one JSON object a step")
    boolean json;

    @Parameters(paramLabel = "SCRIPT")
    Path script;

    @Override
    public Integer call() {
      var steps = ScriptRunner.readSteps(script);
      Host host =
          Host.start(home(), profile, project, Host.Options.defaults().askingOnTheTerminal());
      ScriptRunner runner = new ScriptRunner(host, session);
      // A stop signal (SIGTERM, SIGINT, a closed terminal) cancels the running step, ends the agent
      // session with
      // its checkpoint and stops the host before the JVM exits: no browser outlives the run.
      Runnable stop =
          new Runnable() {
            private boolean stopped;

            @Override
            public synchronized void run() {
              if (stopped) {
                return;
              }
              stopped = true;
              runner.stop();
              try {
                host.endSession(session);
              } finally {
                host.close();
              }
            }
          };
      Thread hook = new Thread(stop, "run-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        return runner.run(steps, json, System.out) ? 0 : 1;
      } finally {
        stop.run();
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running or has run: the host is stopped
        }
      }
    }
  }

  @Command(
      name = "sessions",
      description = "List agent sessions, their browser sessions, generation and last checkpoint.")
  static final class SessionsCommand implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Option(names = "--project", description = "only this project's agent sessions")
    Path project;

    @Override
    public Integer call() {
      System.out.print(
          Operations.run(
                  home(),
                  profile,
                  "browser_sessions",
                  project == null
                      ? Map.of()
                      : Map.of("project", ProjectConfig.canonical(project).toString()))
              .text());
      return 0;
    }
  }

  @Command(
      name = "transitions",
      description = "Print the audit trail of an agent session (or a browser session).")
  static final class TransitionsCommand implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Option(
        names = "--session",
        required = true,
        description = "an agent session id or a browser session id")
    String session;

    @Option(names = "--project", description = "the project of the agent session")
    Path project;

    @Override
    public Integer call() {
      System.out.print(
          Operations.run(
                  home(),
                  profile,
                  "browser_transitions",
                  project == null
                      ? Map.of("session", session)
                      : Map.of(
                          "session",
                          session,
                          "project",
                          ProjectConfig.canonical(project).toString()))
              .text());
      return 0;
    }
  }

  @Command(
      name = "checkpoints",
      description = "List saved browser states, or delete them all with --clear.")
  static final class CheckpointsCommand implements Callable<Integer> {
    @Option(names = "--profile", required = true)
    String profile;

    @Option(names = "--clear", description = "delete every checkpoint: the sessions start fresh")
    boolean clear;

    @Override
    public Integer call() {
      String text =
          Operations.run(
                  home(),
                  profile,
                  clear ? "browser_clear_checkpoints" : "browser_checkpoints",
                  Map.of())
              .text();
      System.out.print(text.endsWith("\n") ? text : text + "\n");
      return 0;
    }
  }
}
