package dev.periscope.harness.host;

import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tools plugins registered, by name, each with its skill; and who to tell when an agent session
 * ends.
 */
final class HostToolRegistry implements ToolRegistry {
  record Registered(String skill, Tool tool) {}

  private final Map<String, Registered> tools = new LinkedHashMap<>();
  private final List<AgentSessionListener> listeners = new CopyOnWriteArrayList<>();

  @Override
  public synchronized AutoCloseable register(String skill, Tool tool) {
    String name = tool.descriptor().name();
    if (tools.containsKey(name)) {
      throw new IllegalStateException("a tool named " + name + " is already registered");
    }
    Registered r = new Registered(skill, tool);
    tools.put(name, r);
    return () -> {
      synchronized (this) {
        tools.remove(name, r);
      }
    };
  }

  @Override
  public AutoCloseable onAgentSessionEnded(AgentSessionListener listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  synchronized Optional<Registered> find(String name) {
    return Optional.ofNullable(tools.get(name));
  }

  synchronized List<Registered> all() {
    return new ArrayList<>(tools.values());
  }

  void agentSessionEnded(String agentSessionId) {
    for (AgentSessionListener l : listeners) {
      l.agentSessionEnded(agentSessionId);
    }
  }
}
