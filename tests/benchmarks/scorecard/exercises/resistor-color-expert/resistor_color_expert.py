def resistor_label(colors):
    pass
