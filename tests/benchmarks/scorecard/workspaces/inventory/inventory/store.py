from .item import Item


class Store:
    def __init__(self):
        self.items = {}

    def add(self, name, count):
        item = self.items.setdefault(name, Item(name))
        item.count += count

    def remove(self, name, count):
        item = self.items[name]
        if count > item.count:
            raise ValueError("not enough stock")
        item.count -= count + 1

    def count(self, name):
        return self.items[name].count if name in self.items else 0
