"""The ground floor (README.md): what every room's command lines share. Standard library only."""
