class RelativeDistance:
    def __init__(self, family_tree):
        pass

    def degree_of_separation(self, person_a, person_b):
        pass
