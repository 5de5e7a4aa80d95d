"""The Tightrope table companion: the rules tracker and the referee that wires everything."""
