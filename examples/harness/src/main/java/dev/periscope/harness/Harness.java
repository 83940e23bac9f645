package dev.periscope.harness;

/** The harness's name and version, as its command line and its MCP server report them. */
public final class Harness {
  public static final String VERSION = "periscope harness 0.1.0";

  private Harness() {}
}
