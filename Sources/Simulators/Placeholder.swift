public enum SimulatorsPlaceholder {}
