class Item:
    def __init__(self, name, count=0):
        self.name = name
        self.count = count
