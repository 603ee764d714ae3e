def find(search_list, value):
    pass
