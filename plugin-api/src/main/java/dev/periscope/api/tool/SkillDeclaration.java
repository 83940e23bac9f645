package dev.periscope.api.tool;

import java.util.List;
import java.util.Locale;

/**
 * A skill as plugin.yaml declares it: a name, the tools it groups, short guidance on how to use
 * them, and who it is for.
 *
 * <p>An {@link Audience#AGENT agent} skill is what the user switches on and off for a project: its
 * tools are offered to the model while it is enabled. An {@link Audience#OPERATOR operator} skill
 * holds the plugin's commands for the person who runs the host (listing what the plugin keeps,
 * clearing it, checking its stores): a host never offers its tools to a model, and runs them only
 * on the operator's request, from its command line or an administration page. This is how a plugin
 * lets operators see and repair its state without the host reading its private storage.
 */
public record SkillDeclaration(
    String name, List<String> tools, String guidance, Audience audience) {
  /** Who a skill's tools are for. */
  public enum Audience {
    AGENT,
    OPERATOR;

    /** The id plugin.yaml uses: {@code agent} or {@code operator}. */
    public String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The audience of a plugin.yaml id; an unknown id is an {@link IllegalArgumentException}. */
    public static Audience of(String id) {
      for (Audience a : values()) {
        if (a.id().equals(id)) {
          return a;
        }
      }
      throw new IllegalArgumentException(
          "unknown skill audience \"" + id + "\" (expected agent or operator)");
    }
  }

  public SkillDeclaration {
    tools = List.copyOf(tools);
    java.util.Objects.requireNonNull(audience, "audience");
  }

  /** An agent skill. */
  public SkillDeclaration(String name, List<String> tools, String guidance) {
    this(name, tools, guidance, Audience.AGENT);
  }
}
