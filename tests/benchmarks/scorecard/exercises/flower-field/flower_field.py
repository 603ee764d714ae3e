def annotate(garden):
    # Function body starts here
    pass
